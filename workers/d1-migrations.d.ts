// The D1 migrations' file names, in order (vite.config.ts, `d1MigrationNames`).
declare module "virtual:d1-migrations" {
  const names: string[];
  export default names;
}
