// The bench's consumer no-op: the app's queue consumer swapped for one that acknowledges every
// message unread, as the webhook floor's consumer does. Locally a consumer's invocations run on the
// thread that answers the requests, so while the app's consumer applies a burst of orders the
// acknowledgements wait for it; on Cloudflare they run apart. Only the bench's own entries use it:
// it is never part of a deployed Worker.
export function ackingConsumer(worker) {
  return { ...worker, queue: async (batch) => batch.ackAll() };
}
