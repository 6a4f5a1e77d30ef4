"""The table view and the replay bundle in real headless Chromium (Playwright)."""
