import { assertEquals, test } from "../_harness.ts";
import { Slots } from "../../transports/_slots.ts";

test("slots: a freed slot is taken again, and a stale drop never lets go of its new item", () => {
  const slots = new Slots<object>();
  const [a, b, c] = [{}, {}, {}];
  const slotA = slots.add(a);
  const slotB = slots.add(b);
  assertEquals(slots.size, 2);
  slots.drop(slotA, a);
  slots.drop(slotA, a);
  assertEquals(slots.size, 1, "a second drop changes nothing");
  assertEquals(slots.add(c), slotA, "the freed slot is taken again");
  slots.drop(slotA, a);
  assertEquals(slots.size, 2, "a's stale drop leaves c");
  assertEquals(slots.take(), [c, b]);
  assertEquals(slots.size, 0);
  slots.drop(slotB, b);
  assertEquals(slots.size, 0, "a drop after take changes nothing");
});
