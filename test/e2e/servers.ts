// The two servers the browser tests run against: the development server (with the local mailbox
// at /dev/mail) for the journeys, and the production build in local workerd for what only the
// build does to a document (decision 025). Ports come from the environment so that a second
// checkout can run its own pair beside this one.
export const DEV_PORT = Number(process.env.E2E_PORT ?? 5173);
export const PRODUCTION_PORT = Number(process.env.E2E_PRODUCTION_PORT ?? 4179);
export const PRODUCTION_URL = `http://localhost:${PRODUCTION_PORT}`;
