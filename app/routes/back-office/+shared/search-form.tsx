// A staff page's one-box search: a GET form, so a search is a shareable URL, whose button says
// "Searching..." while its results are on their way.
import type { InputHTMLAttributes } from "react";
import { Form } from "react-router";
import { Search } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";

export function SearchForm({
  searching,
  label,
  hint,
  error,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & { searching: boolean; label: string; hint: string; error?: string }) {
  return (
    <Form method="get" role="search" className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <Field label={label} name="q" type="search" autoComplete="off" hint={hint} error={error} className="sm:flex-1" {...input} />
      <Button type="submit" disabled={searching} className="sm:mb-6">
        <Search className="size-4" aria-hidden /> {searching ? "Searching..." : "Search"}
      </Button>
    </Form>
  );
}
