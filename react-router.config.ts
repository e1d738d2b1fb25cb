import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  future: {
    // The dev server scans every route for dependencies when it starts, instead of discovering
    // them on a page's first visit and reloading the browser (which would drop a flash toast).
    unstable_optimizeDeps: true,
  },
} satisfies Config;
