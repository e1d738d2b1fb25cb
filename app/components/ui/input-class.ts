// The text box's look, shared by every input and select. Apart from the field components so that
// the few controls outside a form (the cart's discount code) take only this string.
export const inputClass =
  "h-10 w-full rounded-md border border-line bg-panel-2 px-3 text-sm text-zinc-100 placeholder:text-zinc-500 focus:border-accent focus:outline-none disabled:opacity-50 aria-invalid:border-red-500";
