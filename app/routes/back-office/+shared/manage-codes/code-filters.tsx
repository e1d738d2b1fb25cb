// The code lists' filters: GET forms that apply as soon as a choice changes. Each card's form
// carries the other card's filters along, so filtering one list leaves the other as it was.
import type { ReactNode } from "react";
import { Form, useSearchParams, useSubmit } from "react-router";
import { inputClass } from "~/components/ui/input-class";

export type VariantOption = { id: string; title: string };

export function FilterForm({ keep, className, children }: { keep: string[]; className?: string; children: ReactNode }) {
  const submit = useSubmit();
  const [searchParams] = useSearchParams();
  return (
    <Form method="get" className={className} onChange={(event) => submit(event.currentTarget, { preventScrollReset: true, replace: true })}>
      {keep.map((name) => {
        const value = searchParams.get(name);
        return value ? <input key={name} type="hidden" name={name} value={value} /> : null;
      })}
      {children}
    </Form>
  );
}

export function VariantFilter({ name, value, variants, label }: { name: string; value: string; variants: VariantOption[]; label: string }) {
  return (
    <select name={name} defaultValue={value} aria-label={label} className={`${inputClass} sm:w-64`}>
      <option value="">All variants</option>
      {variants.map((v) => (
        <option key={v.id} value={v.id}>
          {v.title}
        </option>
      ))}
    </select>
  );
}
