// The chat page hosting a view it did not write, in Chromium: the chat example serves the
// tools of tests/mcp_app/ts_server.mjs (the official MCP TypeScript SDK); the scripted
// model calls `tasks`, whose view (the extension SDK's `App`) renders in the page's
// sandboxed frame and shows the result. Its "Done" button calls `complete_task` (a tool
// for the view only) through the page, and its "Send to chat" button posts a message
// that the next turn reads. Prints one JSON line with what was seen; saves a screenshot.
// Usage: NODE_MODULES=… node chat_ts.mjs CHAT_URL SCREENSHOT
import { launch } from "./chromium.mjs";

const [chatUrl, screenshot] = process.argv.slice(2);

const seen = { elsewhere: [], appsCalls: [] };
const errors = [];
const { page, close } = await launch({ elsewhere: seen.elsewhere, errors });
try {
  // The view's tool calls, as the page sends them to its server.
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/apps/call") seen.appsCalls.push(JSON.parse(request.postData()));
  });
  await page.goto(chatUrl);

  // The model calls the view's tool; the view shows its result.
  await page.fill("#prompt", 'tasks {"tasks": ["write the tests", "review the docs", "ship"]}');
  await page.click("#send");
  const frameElement = page.locator("iframe[title='tasks view']");
  await frameElement.waitFor();
  seen.sandbox = await frameElement.getAttribute("sandbox");
  const view = page.frameLocator("iframe[title='tasks view']");
  try {
    await view.getByText("Open: 3, done: 0").waitFor();
  } catch (e) {
    throw new Error(`the view never showed the result: ${e}\n${errors.join("\n")}`);
  }
  await page.getByText("result: ").first().waitFor();
  seen.openBefore = await view.locator("#open").innerText();

  // The view calls a tool through the page.
  await view.getByRole("button", { name: "Done: write the tests" }).click();
  try {
    await view.getByText("Open: 2, done: 1").waitFor();
  } catch (e) {
    const status = await view.locator("#status").innerText();
    throw new Error(`the view's call never came back: ${status}\n${errors.join("\n")}`);
  }
  seen.doneAfter = await view.locator("#done").innerText();
  seen.openAfter = await view.locator("#open").innerText();

  // The view's message lands in the chat, and the next turn reads it.
  await view.getByRole("button", { name: "Send to chat" }).click();
  const message = "Tasks done: write the tests; open: review the docs, ship.";
  await page.locator(".user", { hasText: message }).waitFor();
  await page.locator(".tool", { hasText: `calling deploy {"service":"${message}"}` }).waitFor();
  await page.getByText("Deploy this service?").waitFor();

  seen.url = page.url();
  seen.log = await page.locator("#log").innerText();
  // The whole page in the window (a full-page capture of a taller page redraws the frame
  // part-way).
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 720, height });
  await page.screenshot({ path: screenshot });
  seen.errors = errors;
  console.log(JSON.stringify(seen));
} finally {
  await close();
}
