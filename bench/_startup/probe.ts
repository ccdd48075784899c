// One cold import, in a fresh process: `probe.ts <specifier>…` imports each specifier (a
// file URL or a package name) in turn and prints the milliseconds the imports took, measured
// from inside the process (the runtime's own start-up is not in it).
import process from "node:process";

const started = performance.now();
for (const specifier of process.argv.slice(2)) await import(specifier);
console.log(`IMPORT_MS ${performance.now() - started}`);
