// A view's gated call outlives the chat server, in Chromium: the chat example (runs in
// SQLite) serves the tools of the mcp_app example, `add_line` gated. The view's *Add*
// waits on the page's approval card; the script prints `interrupted` and waits for a
// line on stdin (the test restarts the chat server meanwhile), then clicks Approve and
// checks the view shows the call's result. Prints one JSON line with what was seen
// (the answered id among it); saves a screenshot.
// Usage: NODE_MODULES=… node chat_restart.mjs CHAT_URL SCREENSHOT
import { launch } from "./chromium.mjs";

const [chatUrl, screenshot] = process.argv.slice(2);

function line() {
  return new Promise((resolve) => process.stdin.once("data", resolve));
}

const seen = { answers: [], elsewhere: [] };
const errors = [];
const { page, close } = await launch({ elsewhere: seen.elsewhere, errors, consoleErrors: false });
try {
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/apps/answer") seen.answers.push(JSON.parse(request.postData()));
  });
  page.on("response", async (response) => {
    if (new URL(response.url()).pathname === "/apps/answer") seen.answerStatus = response.status();
  });
  await page.goto(chatUrl);

  await page.fill("#prompt", 'budget {"lines": [{"name": "rent", "amount": 900}, {"name": "food", "amount": 300}]}');
  await page.click("#send");
  const view = page.frameLocator("iframe[title='budget view']");
  await view.getByText("Total: 1200").waitFor();
  await view.locator("#name").fill("travel");
  await view.locator("#amount").fill("250");
  await view.getByRole("button", { name: "Add" }).click();
  await page.getByText("Let `add_line` run? (asked by the budget view)").waitFor();
  console.log("interrupted");
  await line();

  // The server that parked the call is gone; the one on the same store answers.
  seen.totalBeforeApproval = await view.locator("#total").innerText();
  await page.getByRole("button", { name: "Approve" }).last().click();
  try {
    await view.getByText("Total: 1450").waitFor();
  } catch (e) {
    const status = await view.locator("#status").innerText();
    throw new Error(`the approved call's result never showed: ${status}\n${errors.join("\n")}`);
  }
  seen.chart = await view.locator("#chart").innerText();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 720, height });
  await page.screenshot({ path: screenshot });
  seen.errors = errors;
  console.log(JSON.stringify(seen));
} finally {
  await close();
}
