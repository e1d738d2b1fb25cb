// Unexpected errors get a reference the visitor can quote. Every loader, action and middleware of
// the server build runs inside `withReference`: an Error (a bug, a database or network failure) is
// logged once under a short reference and answered as a 500 that carries it, which React Router
// hands the area's error boundary as it is (it hides a thrown Error's message from the browser,
// but not an answer's body). Anything else thrown (a redirect, a 403 or 404) is an answer already
// and passes untouched (decision 053).
import { data, type ServerBuild } from "react-router";

/** What a 500 carries to the page: a sentence, and the reference the server log holds. */
export interface Unexpected {
  message: string;
  reference: string;
}

type Handler = (args: { request: Request }, ...rest: never[]) => unknown;

const referenced = new WeakMap<object, ServerBuild>();

/** `build` with every loader, action and middleware answering unexpected errors with a reference. */
export function withErrorReferences(build: ServerBuild): ServerBuild {
  let wrapped = referenced.get(build);
  if (!wrapped) {
    const routes = Object.fromEntries(
      Object.entries(build.routes).map(([id, route]) => [id, route && { ...route, module: referencedModule(route.module) }]),
    );
    wrapped = { ...build, routes };
    referenced.set(build, wrapped);
  }
  return wrapped;
}

function referencedModule<M extends { loader?: unknown; action?: unknown; middleware?: unknown }>(module: M): M {
  const { loader, action, middleware } = module;
  return {
    ...module,
    ...(typeof loader === "function" ? { loader: withReference(loader as Handler) } : {}),
    ...(typeof action === "function" ? { action: withReference(action as Handler) } : {}),
    ...(Array.isArray(middleware) ? { middleware: middleware.map((handler: Handler) => withReference(handler)) } : {}),
  };
}

function withReference<H extends Handler>(handler: H): H {
  return (async (args: { request: Request }, ...rest: never[]) => {
    try {
      return await handler(args, ...rest);
    } catch (error) {
      if (!(error instanceof Error) || args.request.signal.aborted) throw error;
      const reference = crypto.randomUUID().slice(0, 8);
      console.error(`[${reference}] ${args.request.method} ${new URL(args.request.url).pathname}:`, error);
      throw data<Unexpected>({ message: "Something went wrong on our side.", reference }, { status: 500 });
    }
  }) as H;
}
