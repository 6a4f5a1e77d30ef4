// The installable zip: dist/ as Foundry unpacks it into Data/modules/tabletrail-bridge/ (module.json at its top).
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";

if (!existsSync("dist/module.json")) throw new Error("run npm run build first: no dist/module.json");
rmSync("tabletrail-bridge.zip", { force: true });
execFileSync("zip", ["-q", "-r", "-X", "../tabletrail-bridge.zip", "."], { cwd: "dist", stdio: "inherit" });
console.log("packed tabletrail-bridge.zip");
