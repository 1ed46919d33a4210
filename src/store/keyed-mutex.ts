// Per-key async mutual exclusion. A route that checks state and then appends (create a task, close
// it, claim an idempotency key) holds the key's lock across both, so two concurrent requests for the
// same task or key cannot both pass the check; different keys still share one group commit.

export type KeyedMutex = {
  run<T>(keys: string[], fn: () => Promise<T>): Promise<T>;
};

export function createKeyedMutex(): KeyedMutex {
  const tails = new Map<string, Promise<void>>();

  const lockOne = async (key: string): Promise<() => void> => {
    const previous = tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    };
  };

  return {
    async run(keys, fn) {
      // A fixed order (sorted, unique) makes nested acquisition deadlock-free.
      const ordered = [...new Set(keys)].sort();
      const releases: Array<() => void> = [];
      try {
        for (const key of ordered) releases.push(await lockOne(key));
        return await fn();
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
  };
}
