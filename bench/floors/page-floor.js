// The page floor: the least work a cached storefront page can cost, served by the same runtime as
// the app. It answers the very bytes and headers the app's cached home and product pages answer
// (captured by the bench before it starts), from memory, each at its own path.
import home from "./page-floor.html";
import product from "./page-floor.product.html";
import pages from "./page-floor.json";

export default {
  fetch(request) {
    return new URL(request.url).pathname === pages.productPath
      ? new Response(product, { headers: pages.product })
      : new Response(home, { headers: pages.home });
  },
};
