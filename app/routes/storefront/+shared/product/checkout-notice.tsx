// The checkout information every purchase by card passes through: what Shopify asks and the terms.
// Fetched on the first "Buy now" or "Add to cart", like the crypto dialog: closed, it draws nothing.
import { Button } from "~/components/ui/button";
import { Dialog } from "~/components/ui/dialog";
import { LEGAL_PAGES } from "~/lib/legal";

export function CheckoutNotice({ open, onClose, onProceed }: { open: boolean; onClose: () => void; onProceed: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Important Checkout Information" description="Please read before you continue.">
      <ul className="list-disc space-y-2 pl-5 text-sm">
        <li>
          Shopify asks for a delivery address. Nothing is shipped, so <strong>use random information</strong> for the address.
        </li>
        <li>
          <strong>Make sure your e-mail address is correct</strong>: your product key is sent there right after payment.
        </li>
        <li>
          By paying you agree to our{" "}
          <a href={LEGAL_PAGES.terms.path} target="_blank" rel="noreferrer" className="text-accent underline">
            Terms of Service
          </a>{" "}
          and{" "}
          <a href={LEGAL_PAGES.refunds.path} target="_blank" rel="noreferrer" className="text-accent underline">
            Refund Policy
          </a>
          .
        </li>
      </ul>
      <div className="mt-6 flex justify-end gap-3">
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={onProceed}>Continue to Checkout</Button>
      </div>
    </Dialog>
  );
}
