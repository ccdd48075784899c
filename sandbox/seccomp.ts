/**
 * A seccomp filter, as the bytes `bwrap --seccomp` reads, that stops a process from starting
 * new processes: `fork`, `vfork` and a `clone` without `CLONE_THREAD` fail with `EPERM`,
 * `clone3` (whose flags a filter cannot read) with `ENOSYS`, so the C library falls back to
 * `clone`; threads still start. Pure: the program is built from constants.
 *
 * The filter does not stop `execve`: a process may still replace itself with another program
 * the sandbox can see. Any other architecture's system calls (a 32-bit call from a 64-bit
 * process) fail with `EPERM`, so the numbers cannot be dodged.
 *
 * @module
 */

/** The architectures the filter is written for (Linux). */
export type SeccompArch = "x64" | "arm64";

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const errno = (code: number) => 0x00050000 | code;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_THREAD = 0x00010000;
/** `seccomp_data` offsets: the call's number, the architecture, the first argument's low word. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

interface ArchTable {
  audit: number;
  fork?: number;
  vfork?: number;
  clone: number;
  clone3: number;
  /** x86-64: numbers at or above this are the x32 ABI's. */
  x32?: number;
}

const TABLES: Record<SeccompArch, ArchTable> = {
  x64: { audit: 0xc000003e, fork: 57, vfork: 58, clone: 56, clone3: 435, x32: 0x40000000 },
  arm64: { audit: 0xc00000b7, clone: 220, clone3: 435 },
};

type Label = "allow" | "deny" | "nosys" | "clone";
type Step =
  | { op: "ld"; at: number }
  | { op: "jeq" | "jge" | "jset"; k: number; yes: Label | null; no: Label | null }
  | { op: "ret"; k: number; label?: Label }
  | { op: "label"; name: Label };

/**
 * The filter for one architecture.
 *
 * @param arch The architecture of the processes it runs over (this machine's).
 * @returns The program: 8 bytes per instruction, in the machine's (little-endian) order.
 *
 * @example
 * ```ts
 * import { noSpawnFilter } from "./seccomp.ts";
 *
 * const program = noSpawnFilter("x64");
 * if (program.length % 8 !== 0 || program.length === 0) throw new Error("unexpected");
 * ```
 */
export function noSpawnFilter(arch: SeccompArch): Uint8Array {
  const t = TABLES[arch];
  if (t === undefined) throw new TypeError(`no seccomp filter for "${arch}"`);
  const steps: Step[] = [
    { op: "ld", at: ARCH },
    { op: "jeq", k: t.audit, yes: null, no: "deny" },
    { op: "ld", at: NR },
  ];
  if (t.x32 !== undefined) steps.push({ op: "jge", k: t.x32, yes: "deny", no: null });
  if (t.fork !== undefined) steps.push({ op: "jeq", k: t.fork, yes: "deny", no: null });
  if (t.vfork !== undefined) steps.push({ op: "jeq", k: t.vfork, yes: "deny", no: null });
  steps.push(
    { op: "jeq", k: t.clone3, yes: "nosys", no: null },
    { op: "jeq", k: t.clone, yes: "clone", no: "allow" },
    { op: "label", name: "clone" },
    { op: "ld", at: ARG0 },
    { op: "jset", k: CLONE_THREAD, yes: "allow", no: "deny" },
    { op: "label", name: "allow" },
    { op: "ret", k: ALLOW },
    { op: "label", name: "deny" },
    { op: "ret", k: errno(EPERM) },
    { op: "label", name: "nosys" },
    { op: "ret", k: errno(ENOSYS) },
  );
  // Each label's instruction index.
  const at = new Map<Label, number>();
  let count = 0;
  for (const step of steps) {
    if (step.op === "label") at.set(step.name, count);
    else count++;
  }
  const bytes = new Uint8Array(count * 8);
  const view = new DataView(bytes.buffer);
  let i = 0;
  const offset = (target: Label | null) => target === null ? 0 : at.get(target)! - i - 1;
  for (const step of steps) {
    if (step.op === "label") continue;
    let code: number, jt = 0, jf = 0, k: number;
    if (step.op === "ld") [code, k] = [LD_W_ABS, step.at];
    else if (step.op === "ret") [code, k] = [RET_K, step.k];
    else {
      code = step.op === "jeq" ? JEQ_K : step.op === "jge" ? JGE_K : JSET_K;
      [jt, jf, k] = [offset(step.yes), offset(step.no), step.k];
    }
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
    i++;
  }
  return bytes;
}

/**
 * The program as the argument of the shell's `printf`: every byte as a `\ooo` escape.
 *
 * @param program The filter's bytes.
 * @returns The `printf` format that prints them.
 *
 * @example
 * ```ts
 * import { printfBytes } from "./seccomp.ts";
 *
 * if (printfBytes(new Uint8Array([0, 37, 255])) !== "\\000\\045\\377") throw new Error("unexpected");
 * ```
 */
export function printfBytes(program: Uint8Array): string {
  let out = "";
  for (const byte of program) out += "\\" + byte.toString(8).padStart(3, "0");
  return out;
}
