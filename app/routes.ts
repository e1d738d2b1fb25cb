// The route table: every URL the app answers, and the module that answers it.
import { index, layout, prefix, type RouteConfig, route } from "@react-router/dev/routes";

// Pages that exist only in local development (the outbox viewer); a production build has none.
const devOnly = process.env.NODE_ENV === "production" ? [] : [route("dev/mail", "routes/dev.mail.tsx")];

export default [
  index("routes/home.tsx"),
  route("auth", "routes/auth.tsx"),
  route("auth/verify", "routes/auth.verify.tsx"),
  route("auth/logout", "routes/auth.logout.tsx"),
  route("api/viewer", "routes/api.viewer.ts"),
  ...prefix("dashboard", [
    layout("routes/dashboard.tsx", [
      index("routes/dashboard._index.tsx"),
      route("manage-codes", "routes/dashboard.manage-codes.tsx"),
    ]),
  ]),
  ...devOnly,
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
