// The MCP Apps SDK as the judge of this crate's server side. The official MCP client
// (Node) lists the example's tools and calls `budget`; Chromium opens a bare host page
// (host.html) where the SDK's `AppBridge` renders the view read from the server in a
// sandboxed frame; the view's `App` (the SDK again, its bundle served on loopback by the
// test) receives the result and, through the form,
// calls `add_line`. Prints one JSON line with what was seen; saves a screenshot.
// Usage: NODE_MODULES=… node host.mjs MCP_URL HOST_URL SCREENSHOT (HOST_URL serves
// host.html at / and node_modules under /node_modules/, on loopback).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { launch } from "./chromium.mjs";

const [mcpUrl, hostUrl, screenshot] = process.argv.slice(2);
const modules = process.env.NODE_MODULES.replace(/\/?$/, "/");
const { Client, StreamableHTTPClientTransport } = await import(
  pathToFileURL(path.join(modules, "@modelcontextprotocol/client/dist/index.mjs")).href
);

const client = new Client({ name: "toolnexus-apps-judge", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
const seen = {};
seen.extension = client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/ui"] ?? null;
const { tools } = await client.listTools();
seen.tools = Object.fromEntries(tools.map((t) => [t.name, t._meta ?? null]));
const toolInput = { lines: [{ name: "rent", amount: 900 }, { name: "food", amount: 300 }] };
const toolResult = await client.callTool({ name: "budget", arguments: toolInput });
seen.result = toolResult.structuredContent;

const errors = [];
const { page, close } = await launch({ errors });
try {
  page.setDefaultTimeout(15000);
  page.on("requestfailed", (r) => errors.push(`${r.url()}: ${r.failure()?.errorText}`));
  await page.exposeFunction("mcpCall", async (method, params) => {
    switch (method) {
      case "setup":
        return { uri: tools.find((t) => t.name === "budget")._meta.ui.resourceUri, toolInput, toolResult };
      case "resources/read":
        return await client.readResource(params);
      case "tools/call":
        return await client.callTool(params);
      default:
        throw new Error(`no such method ${method}`);
    }
  });
  await page.goto(hostUrl);
  const view = page.frameLocator("#view");
  try {
    await view.getByText("Total: 1200").waitFor();
  } catch (e) {
    throw new Error(`the view never showed the result: ${e}\n${errors.join("\n")}`);
  }
  await view.locator("#name").fill("travel");
  await view.locator("#amount").fill("250");
  await view.getByRole("button", { name: "Add" }).click();
  try {
    await view.getByText("Total: 1450").waitFor();
  } catch (e) {
    const status = await view.locator("#status").innerText();
    const log = await page.evaluate(() => window.hostLog);
    throw new Error(`the second tool's result never showed: ${status}\n${JSON.stringify(log)}\n${errors.join("\n")}`);
  }
  seen.chart = await view.locator("#chart").innerText();
  seen.host = await page.evaluate(() => window.hostLog);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify(seen));
} finally {
  await close();
  await client.close();
}
