// Debian's headless Chromium, driven by playwright-core (from $NODE_MODULES), as the MCP
// Apps browser tests open it: a fresh profile, a small window (the screenshots are the
// guide's figures), and nothing leaving the machine.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

/**
 * The browser, its first page, and `close` (closes it and deletes its profile). A request to any host but 127.0.0.1 is aborted and its
 * URL pushed to `elsewhere`; page errors (and, with `consoleErrors`, console errors) are
 * pushed to `errors`.
 */
export async function launch({ elsewhere = [], errors = [], consoleErrors = true } = {}) {
  const require = createRequire(process.env.NODE_MODULES.replace(/\/?$/, "/"));
  const { chromium } = require("playwright-core");
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "toolnexus-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.TOOLNEXUS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 720, height: 560 },
    args: [
      "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],
    timeout: 30000,
  });
  await browser.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).hostname === "127.0.0.1") return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const page = browser.pages()[0] || (await browser.newPage());
  page.setDefaultTimeout(20000);
  page.on("pageerror", (e) => errors.push(String(e)));
  if (consoleErrors) {
    page.on("console", (m) => { if (m.type() === "error") errors.push(`${m.text()} (${m.location().url})`); });
  }
  const close = async () => {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { browser, page, close };
}
