// A form sent through a fetcher, the way most forms in the hub work: its schema checks it in the
// browser first (useFormCheck), the action's answer is toasted (useResultToast), and the form is
// cleared after a success.
import { useRef } from "react";
import type * as v from "valibot";
import type { Answer } from "~/lib/answer";
import type { FieldErrors } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { useFormCheck } from "./use-form-check";
import { type ActionAnswer, useResultToast } from "./use-result-toast";

export function useFetcherForm<S extends v.GenericSchema>(
  fetcher: { state: string; data?: ActionAnswer & { problem?: Problem; fieldErrors?: FieldErrors } },
  schema: S,
  options: {
    title: string | ((problem: Problem) => string);
    /** The answer whose field problem this form shows (default: the fetcher's latest answer). */
    answer?: Answer | null;
  },
) {
  const formRef = useRef<HTMLFormElement>(null);
  useResultToast(fetcher, () => formRef.current?.reset());
  const check = useFormCheck(schema, { title: options.title, answer: "answer" in options ? options.answer : fetcher.data });
  return { formRef, busy: fetcher.state !== "idle", ...check };
}
