// A real browser on the chat example: Debian's chromium, driven by playwright-core (no
// browser download). Opens the page, types a prompt, clicks Approve on the card, and
// checks that the page shows the tool's result and the final answer; saves a screenshot.
// Usage: node browser.cjs URL SCREENSHOT [restart]; with `restart`, it prints
// `interrupted` once the card shows and waits for a line on stdin (the server restarted
// meanwhile) before it clicks.
const { chromium } = require("playwright-core");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const [url, screenshot, mode] = process.argv.slice(2);

function line() {
  return new Promise((resolve) => process.stdin.once("data", resolve));
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-chromium-"));
  // A fresh profile each time (playwright's user-data-dir).
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.TOOLNEXUS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],
    timeout: 30000,
  });
  try {
    const page = browser.pages()[0] || (await browser.newPage());
    page.setDefaultTimeout(15000);
    await page.goto(url);
    await page.fill("#prompt", "the web app");
    await page.click("#send");
    const approve = page.getByRole("button", { name: "Approve" });
    await approve.waitFor();
    await page.getByText("Deploy this service?").waitFor();
    if (mode === "restart") {
      console.log("interrupted");
      await line();
    }
    await approve.click();
    await page.getByText("result: deployed the web app").waitFor();
    await page.getByText("Done: deployed the web app.").waitFor();
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log("answered");
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
