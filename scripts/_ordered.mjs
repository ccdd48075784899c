// The output of steps that run at the same time, shown as if they had run one after another:
// the first step not yet shown whole writes through as it comes, every later one is held and
// written whole (in step order) once all the steps before it are shown.

/**
 * An ordered view over `count` steps' output.
 *
 * @param {number} count How many steps, numbered 0 to count − 1 in the order they are shown.
 * @param {(text: string) => void} [write] Where the output goes (default stdout).
 * @returns {{ writer(step: number): (text: string) => void, end(step: number): void }}
 *   `writer(step)` is that step's write function; `end(step)` says it wrote all it will.
 */
export function orderedOutput(count, write = (text) => void process.stdout.write(text)) {
  const steps = Array.from({ length: count }, () => ({ held: "", done: false }));
  let head = 0;
  return {
    writer(step) {
      return (text) => {
        if (step === head) write(text);
        else steps[step].held += text;
      };
    },
    end(step) {
      steps[step].done = true;
      while (head < count && steps[head].done) {
        head += 1;
        if (head < count) {
          const { held } = steps[head];
          steps[head].held = "";
          if (held) write(held);
        }
      }
    },
  };
}
