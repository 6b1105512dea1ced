/** Types for `parse-prometheus-text-format`, which ships none. */
declare module 'parse-prometheus-text-format' {
  /** One sample of a family: its value as written, and its labels. */
  export interface PromSample {
    readonly value?: string;
    readonly labels?: Record<string, string>;
    readonly buckets?: Record<string, string>;
    readonly quantiles?: Record<string, string>;
    readonly count?: string;
    readonly sum?: string;
  }
  /** One metric family. */
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly PromSample[];
  }
  /** Parse Prometheus text exposition format. */
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
