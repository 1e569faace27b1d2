// The error a promise rejects with; a promise that resolves fails the test.

export async function rejection<E extends Error = Error>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return e as E;
  }
  throw new Error("expected a rejection");
}
