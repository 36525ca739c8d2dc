export const USER_USAGE = `usage: docfleet <command> [options]   (SERVICE_API_KEY required; SERVICE_BASE_URL default http://127.0.0.1:8080)
  docfleet kb create NAME [--description TEXT] [--json]
  docfleet kb list [--json]
  docfleet upload PATH… --kb KB_ID [--folder FOLDER_ID] [--parse [--watch]] [--json]   (folders are walked recursively)
  docfleet parse FILE_ID… [--watch] [--json]   (--watch follows the event stream; polls if it cannot)
  docfleet search KB_ID "query" [--limit N] [--table-only] [--json]
  docfleet extract FILE_ID --schema schema.json [--json]   (JSON Schema: file job; { fields: [...] }: extraction run)
  docfleet split FILE_ID --out DIR [--rules rules.json] [--json]
  docfleet credits [--json]
--json prints one JSON document on stdout (progress and messages go to stderr).`;
