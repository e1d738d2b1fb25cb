// Waiting a little for something that may take long: its value when it arrives within the time
// given, or nothing, for a caller that can carry on without it (and take it later).

/** The promise's value if it settles within `ms`, else undefined; a rejection within `ms` rejects. */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
