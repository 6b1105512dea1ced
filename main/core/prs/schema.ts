/**
 * Migration 18: the merge desk's records. A Next step ticked done (who, when, and the step's text:
 * a tick counts only while the PR's Next section still says the same at that index), and each
 * merge made from the console (who, when, the head sha merged, how, and the PR's card as the
 * operator saw it: GitHub's open list drops a merged PR, and the desk keeps showing it for a week,
 * across restarts).
 */
export const PR_DESK_MIGRATION = `
CREATE TABLE pr_next_done (
  loop TEXT NOT NULL,
  number INTEGER NOT NULL,
  step INTEGER NOT NULL,
  text TEXT NOT NULL,
  done_by TEXT NOT NULL,
  done_at TEXT NOT NULL,
  PRIMARY KEY (loop, number, step)
);
CREATE TABLE pr_merges (
  loop TEXT NOT NULL,
  number INTEGER NOT NULL,
  sha TEXT NOT NULL,
  method TEXT NOT NULL,
  merged_by TEXT NOT NULL,
  merged_at TEXT NOT NULL,
  card TEXT,
  PRIMARY KEY (loop, number)
);
`;
