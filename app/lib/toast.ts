// A toast as the server and the browser both describe it.
export interface Toast {
  title: string;
  description?: string;
  variant?: "default" | "destructive";
}
