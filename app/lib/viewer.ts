// The signed-in account as pages see it.
export interface Viewer {
  id: string;
  email: string;
  username: string;
  avatarUrl: string | null;
  isAdmin: boolean;
}

/** The avatar's fallback letter: the e-mail's first letter in upper case, else "U". */
export function avatarInitial(email: string | null | undefined): string {
  return email?.trim().charAt(0).toUpperCase() || "U";
}
