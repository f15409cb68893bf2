// ESLint's recommended rules over the browser JavaScript: the design editor (web-demo/), the
// pages' scripts (host/static/) and the npm package's entry; Node's globals for the scripts
// and tests that run under Node. Run from the repository's root:
// `tools/js-checks/node_modules/.bin/eslint --config tools/js-checks/eslint.config.mjs`.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["**/node_modules/**", "target/**", "pkg/**", "fuzz/**", "bench/**", "tools/**"] },
  {
    ...js.configs.recommended,
    files: ["web-demo/**/*.js", "host/static/*.js", "npm/**/*.js", "npm/**/*.mjs"],
  },
  {
    files: ["web-demo/**/*.js", "host/static/*.js", "npm/**/*.js", "npm/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["npm/**", "web-demo/tests/**"],
    languageOptions: { globals: globals.node },
  },
];
