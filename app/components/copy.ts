// Copying to the clipboard, with a toast that says it worked.
import type { Toast } from "~/lib/toast";

export async function copyText(text: string, toast: (t: Toast) => void, success: Toast): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(success);
  } catch {
    toast({
      title: "Error",
      description: "Copying is not allowed in this browser. Select the text and copy it by hand.",
      variant: "destructive",
    });
  }
}
