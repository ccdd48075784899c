// Every test file, for runners that take one entry (bun.test.ts). Keep sorted.
import "./protocol/capabilities_test.ts";
import "./protocol/discover_test.ts";
import "./protocol/errors_test.ts";
import "./protocol/event_stream_test.ts";
import "./protocol/headers_test.ts";
import "./protocol/jsonrpc_test.ts";
import "./protocol/meta_test.ts";
import "./protocol/negotiation_test.ts";
import "./protocol/param_headers_test.ts";
import "./protocol/properties_test.ts";
import "./protocol/versions_test.ts";
