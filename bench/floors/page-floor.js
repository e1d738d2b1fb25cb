// The page floor: the least work a cached storefront page can cost, served by the same runtime as
// the app. It answers the very bytes and headers the app's cached home page answers (captured by
// the bench into page-floor.html and page-floor.json before it starts), from memory.
import page from "./page-floor.html";
import headers from "./page-floor.json";

export default {
  fetch() {
    return new Response(page, { headers });
  },
};
