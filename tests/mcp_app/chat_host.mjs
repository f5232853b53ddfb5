// The chat page as an MCP Apps host, in Chromium. The chat example serves the tools of
// the mcp_app example (`--mcp`), `add_line` gated (`--approve add_line`); the scripted
// model calls `budget`, whose view (the SDK's `App`) renders in the page's sandboxed
// frame. The view's form calls `add_line` through the page's approval card, its "Send to
// chat" button posts a message the next turn reads, and its "Budget help" button opens a
// link only once the user confirms. From inside the frame, the test tries to escape: read
// the page, navigate the top, reach the page's server, call a tool its server does not
// have. Prints one JSON line with what was seen; saves a screenshot.
// Usage: NODE_MODULES=… node chat_host.mjs CHAT_URL SCREENSHOT
import { launch } from "./chromium.mjs";

const [chatUrl, screenshot] = process.argv.slice(2);

const seen = { elsewhere: [] };
const errors = [];
const { browser, page, close } = await launch({ elsewhere: seen.elsewhere, errors });
try {
  await page.goto(chatUrl);

  // The model calls the view's tool; the view shows its result.
  await page.fill("#prompt", 'budget {"lines": [{"name": "rent", "amount": 900}, {"name": "food", "amount": 300}]}');
  await page.click("#send");
  const frameElement = page.locator("iframe[title='budget view']");
  await frameElement.waitFor();
  seen.sandbox = await frameElement.getAttribute("sandbox");
  const view = page.frameLocator("iframe[title='budget view']");
  try {
    await view.getByText("Total: 1200").waitFor();
  } catch (e) {
    throw new Error(`the view never showed the result: ${e}\n${errors.join("\n")}`);
  }
  await page.getByText("result: ").first().waitFor();
  const frame = await (await frameElement.elementHandle()).contentFrame();
  seen.policy = await frame.evaluate(() =>
    document.querySelector("meta[http-equiv='Content-Security-Policy']")?.content ?? null);

  // Containment, tried from inside the view.
  seen.parentRead = await frame.evaluate(() => {
    try { return `read: ${window.parent.document.title}`; } catch (e) { return `blocked: ${e.name}`; }
  });
  seen.cookie = await frame.evaluate(() => {
    try { return `read: ${document.cookie}`; } catch (e) { return `blocked: ${e.name}`; }
  });
  seen.topNavigation = await frame.evaluate((target) => {
    try { window.top.location.href = target; return "not refused"; } catch (e) { return `blocked: ${e.name}`; }
  }, new URL("/escaped", chatUrl).href);
  seen.fetchPage = await frame.evaluate(async (target) => {
    try {
      const response = await fetch(target, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      return `reached: ${response.status}`;
    } catch (e) { return `blocked: ${e.name}`; }
  }, new URL("/apps/call", chatUrl).href);
  // A script from an origin the view's CSP does not list (the page's own server).
  seen.foreignScript = await frame.evaluate((src) => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", (e) =>
      resolve(`blocked: ${e.effectiveDirective}`), { once: true });
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve("loaded");
    document.head.appendChild(script);
  }), new URL("/escape.js", chatUrl).href);
  // A tools/call for a tool of the page, not of the view's server, straight to the host.
  seen.foreignTool = await frame.evaluate(() => new Promise((resolve) => {
    const listener = (event) => {
      if (event.data?.id !== "escape-1") return;
      window.removeEventListener("message", listener);
      resolve(event.data);
    };
    window.addEventListener("message", listener);
    window.parent.postMessage({ jsonrpc: "2.0", id: "escape-1", method: "tools/call", params: { name: "deploy", arguments: { service: "prod" } } }, "*");
  }));

  // The view's own call goes through the page's approval.
  await view.locator("#name").fill("travel");
  await view.locator("#amount").fill("250");
  await view.getByRole("button", { name: "Add" }).click();
  await page.getByText("Let `add_line` run? (asked by the budget view)").waitFor();
  seen.totalBeforeApproval = await view.locator("#total").innerText();
  await page.getByRole("button", { name: "Approve" }).last().click();
  try {
    await view.getByText("Total: 1450").waitFor();
  } catch (e) {
    const status = await view.locator("#status").innerText();
    throw new Error(`the approved call's result never showed: ${status}\n${errors.join("\n")}`);
  }
  seen.chart = await view.locator("#chart").innerText();
  // The view asked for its size (the SDK's auto-resize); the page sized the frame.
  seen.frameHeight = await frameElement.evaluate((f) => f.style.height);

  // The view's message lands in the chat, and the next turn reads it.
  await view.getByRole("button", { name: "Send to chat" }).click();
  const message = "My budget: rent 900, food 300, travel 250; total 1450.";
  await page.locator(".user", { hasText: message }).waitFor();
  await page.locator(".tool", { hasText: `calling deploy {"service":"${message}"}` }).waitFor();
  await page.getByText("Deploy this service?").waitFor();

  // A link opens only once the user confirms.
  await view.getByRole("button", { name: "Budget help" }).click();
  await page.getByText("The budget view wants to open https://en.wikipedia.org/wiki/Budget").waitFor();
  seen.pagesBeforeConfirm = browser.pages().length;
  seen.elsewhereBeforeConfirm = [...seen.elsewhere];
  const popup = browser.waitForEvent("page");
  await page.getByRole("button", { name: "Open" }).click();
  await popup;
  seen.pagesAfterConfirm = browser.pages().length;
  for (let i = 0; i < 100 && !seen.elsewhere.some((u) => u.startsWith("https://en.wikipedia.org/")); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

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
