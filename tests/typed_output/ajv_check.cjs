// Compile output schemas with ajv (JSON Schema draft 2020-12, strict mode, the standard
// formats) and validate values against them.
//
//     node ajv_check.cjs < CASES_JSON
//
// CASES_JSON (on stdin) is a list of {"name", "schema", "value"}. Prints a JSON report:
// for each case, whether the schema compiled, whether the value validated (with ajv's
// errors if not), and whether a value that is not an object was rejected (so a schema
// that accepts anything cannot pass unnoticed). Packages come from NODE_PATH.

const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

function check({ name, schema, value }) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return { name, compiled: false, error: String(error.message) };
  }
  const valid = validate(value);
  const errors = valid ? null : validate.errors;
  const rejectsNonObject = !validate("not an object");
  return { name, compiled: true, valid, errors, rejectsNonObject };
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const report = JSON.parse(input).map(check);
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
});
