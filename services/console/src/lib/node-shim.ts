// Browser stand-ins for the few node: modules the SDK imports for path uploads (see vite.config.ts).
const nodeOnly = (name: string) => () => {
  throw new Error(`${name} is not available in the browser: upload File objects`);
};
export const openAsBlob = nodeOnly('fs.openAsBlob');
export const stat = nodeOnly('fs.stat');
export const basename = (p: string) => p.split(/[\\/]/).pop() ?? p;
export const randomUUID = () => globalThis.crypto.randomUUID();
// Webhook signing and verification run on the receiving server, never in the console.
export const createHmac = nodeOnly('crypto.createHmac (webhook signatures)');
export const timingSafeEqual = nodeOnly('crypto.timingSafeEqual (webhook signatures)');
