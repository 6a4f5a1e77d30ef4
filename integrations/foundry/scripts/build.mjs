// Builds the module's one script (dist/scripts/tabletrail-bridge.js) with esbuild, and lays out dist/ as
// Foundry installs it: module.json, the script, the styles.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist/scripts", { recursive: true });
await build({
  entryPoints: ["src/module.ts"],
  bundle: true,
  format: "esm",
  target: "chrome132", // Foundry's desktop app; current browsers too
  outfile: "dist/scripts/tabletrail-bridge.js",
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
});
cpSync("module.json", "dist/module.json");
cpSync("styles", "dist/styles", { recursive: true });
console.log("built dist/ (module.json, scripts/tabletrail-bridge.js, styles/)");
