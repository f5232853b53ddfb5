// Checks listings with independent judges: the official MCP TypeScript SDK parses the
// `tools/list` result, and ajv compiles every schema (draft 2020-12; Gemini's OpenAPI
// subset with ajv's default draft, which knows `nullable`).
// Usage: node check_listings.mjs INPUT.json  (INPUT: {"mcp": [...tools], "schemas": {key: {"schema", "gemini"}}})
// Prints a JSON report: {"mcp": "ok" | error, "schemas": {key: "ok" | error}}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const modules = process.env.TOOLNEXUS_NODE_MODULES;
const require = createRequire(modules + "/");
const { ListToolsResultSchema } = require("@modelcontextprotocol/sdk/types.js");
const Ajv2020 = require("ajv/dist/2020").default;
const Ajv = require("ajv").default;

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const report = { mcp: "ok", schemas: {} };
const parsed = ListToolsResultSchema.safeParse({ tools: input.mcp });
if (!parsed.success) report.mcp = JSON.stringify(parsed.error.issues).slice(0, 2000);
else if (parsed.data.tools.length !== input.mcp.length) report.mcp = "tools lost in parsing";
for (const [key, { schema, gemini }] of Object.entries(input.schemas)) {
  const ajv = gemini ? new Ajv({ strict: true, strictTypes: false, validateFormats: false })
                     : new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, validateFormats: false });
  try { ajv.compile(schema); report.schemas[key] = "ok"; }
  catch (error) { report.schemas[key] = String(error.message).slice(0, 500); }
}
console.log(JSON.stringify(report));
