/**
 * Under which key a part's problem is kept (one problem a key, replaced or cleared as the part
 * recovers): a part beside the loops, or one loop's runs folder, ledgers or older nights.
 */
export type ProblemKey =
  | 'notice tick'
  | 'notices'
  | 'drills'
  | 'github'
  | 'github deadman'
  | 'github desk'
  | 'database'
  | 'maintenance'
  | 'config metrics.listen'
  | `loop ${string}`
  | `loop ${string} ledgers`
  | `loop ${string} nights`
  | `loop ${string} branch`;

/** The keys of one loop's parts. */
export const loopProblemKey = {
  /** Its runs folder (its cycles). */
  runs: (loop: string): ProblemKey => `loop ${loop}`,
  ledgers: (loop: string): ProblemKey => `loop ${loop} ledgers`,
  /** Its nights older than the followed window, read for Trends. */
  nights: (loop: string): ProblemKey => `loop ${loop} nights`,
  /** Its nightly branches' reflogs (the Broken contract list). */
  branch: (loop: string): ProblemKey => `loop ${loop} branch`,
} as const;
