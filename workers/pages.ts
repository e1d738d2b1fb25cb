// What only a rendered page needs: React Router's request handler and the request's context. The
// entry imports this module on the first page an isolate renders (or chat connection it opens), so
// a licence check, a webhook or a cached page never evaluates it (decision 107).
export { createRequestHandler, RouterContextProvider } from "react-router";
export { connectToChat } from "~/http/chat.server";
export { appContext } from "~/http/context.server";
export { withErrorReferences } from "~/http/error-reference.server";
export { catalogueFor } from "~/server/catalogue/catalogue.server";
export { seedDemoData } from "~/server/jobs/demo-seed.server";
export { database } from "~/server/platform/db/client.server";
