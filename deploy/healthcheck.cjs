// Docker HEALTHCHECK for every docfleet service: GET <path> (default /healthz) on the port the
// service serves its health endpoints on: HEALTH_PORT for the workers and billing, PORT for the gateway.
// Usage: node deploy/healthcheck.cjs [/healthz|/readyz]; exit 0 when the answer is 2xx.
const port = Number(process.env.HEALTH_PORT) || Number(process.env.PORT) || 8080;
const path = process.argv[2] || '/healthz';
fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
