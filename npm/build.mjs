// `npm run build`: builds pkg/ with the presspack-npm tool (tools/npm). A test run that has
// already built the tool names it in PRESSPACK_NPM_TOOL (tests/run does), which saves a second
// build of the engine; otherwise cargo builds and runs it, in its own target directory so that
// it never waits on the lock of a cargo build in progress.
import { spawnSync } from "node:child_process";

const tool = process.env.PRESSPACK_NPM_TOOL;
const [command, args] = tool
  ? [tool, ["pkg"]]
  : ["cargo", ["run", "--quiet", "--package", "presspack-npm", "--target-dir", "target/npm-tool", "--", "pkg"]];
const result = spawnSync(command, args, { stdio: "inherit" });
if (result.error) {
  console.error(`npm run build: ${command} does not run: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
