// The readers waiting for the index to advance (the event stream), shared by both stores: each is
// called with the new indexed seq; one that throws is dropped with a warning, the others go on.
export type IndexListeners = {
  /** Adds a listener; returns its removal. */
  add(listener: (seq: number) => void): () => void;
  /** The index now holds every event up to `seq`. */
  indexedTo(seq: number): void;
};

export function indexListeners(warn: (message: string) => void): IndexListeners {
  const listeners = new Set<(seq: number) => void>();
  return {
    add(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    indexedTo(seq) {
      for (const listener of listeners) {
        try {
          listener(seq);
        } catch (err) {
          listeners.delete(listener);
          warn(`An index listener failed and was dropped (${(err as Error)?.message ?? String(err)}).`);
        }
      }
    },
  };
}
