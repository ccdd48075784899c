// Bun's entry: the whole suite, through the shared harness.
import "./tests/all.ts";
