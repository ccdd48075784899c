// Every test file, for runners that take one entry (bun.test.ts). Keep sorted.
import "./protocol/errors_test.ts";
import "./protocol/jsonrpc_test.ts";
import "./protocol/versions_test.ts";
