// The baseline: the least a Worker can do, served by the same runtime as the app.
export default {
  fetch() {
    return new Response("<!doctype html><title>ok</title><p>ok</p>", { headers: { "Content-Type": "text/html" } });
  },
};
