// Which Idempotency-Keys may have been used: a Bloom filter over every key the index holds plus
// every key this writer has sealed since, so that a new key (nearly every keyed write) is known new
// without a look-up in the index. It never says "unused" of a used key; it says "maybe used" of
// about one unused key in a hundred, and then the index decides. It grows by adding a larger layer
// whenever the newest is full (a scalable Bloom filter), ~10 bits per key.
//
// Only a store whose gate seals every event that reaches its index may use one (the preview: its
// data-dir lock makes it the only writer). The hosted store's index also receives other processes'
// events, whose keys no filter here would have seen.

const BITS_PER_KEY = 10;
/** Hash functions per key: about ln 2 × bits per key, for a false-positive rate near 1 %. */
const HASHES = 7;
/** Keys the first layer holds; each later layer holds four times the one before. */
const FIRST_CAPACITY = 1 << 16;

type Layer = { bits: Uint32Array; size: number; capacity: number; count: number };

export type KeyFilter = {
  add(slot: string): void;
  /** False only if `slot` was never added. */
  mayHave(slot: string): boolean;
};

function layer(capacity: number): Layer {
  const size = Math.ceil((capacity * BITS_PER_KEY) / 32) * 32;
  return { bits: new Uint32Array(size / 32), size, capacity, count: 0 };
}

/** Two 32-bit FNV-1a hashes of the UTF-16 code units (different offset bases), the second odd. */
function hashPair(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  // Final mixing, so that keys differing only at their end still spread over every bit.
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b ^= b >>> 15;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, (b | 1) >>> 0];
}

export function createKeyFilter(): KeyFilter {
  const layers: Layer[] = [layer(FIRST_CAPACITY)];
  return {
    add(slot) {
      let last = layers[layers.length - 1]!;
      if (last.count >= last.capacity) layers.push((last = layer(last.capacity * 4)));
      const [h1, h2] = hashPair(slot);
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + i * h2) % last.size;
        last.bits[bit >>> 5]! |= 1 << (bit & 31);
      }
      last.count++;
    },
    mayHave(slot) {
      const [h1, h2] = hashPair(slot);
      for (const l of layers) {
        let all = true;
        for (let i = 0; i < HASHES && all; i++) {
          const bit = (h1 + i * h2) % l.size;
          all = (l.bits[bit >>> 5]! & (1 << (bit & 31))) !== 0;
        }
        if (all) return true;
      }
      return false;
    },
  };
}
