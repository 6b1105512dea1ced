import { Gauge, Registry } from 'prom-client';
import { DeadmanStateSchema, FailureCauseKindSchema, PhaseStatusSchema } from '../../../shared/domain';
import { NoticePrioritySchema } from '../../../shared/ops-domain';
import { CONTRACT_KINDS } from '../../../shared/contract-breach';
import type { LiveState } from '../state/live-state';
import { openFindingsBySeverity } from './metrics-state';

const PHASE_STATUSES = PhaseStatusSchema.options;
const DEADMAN_STATES = DeadmanStateSchema.options;
const CAUSES = FailureCauseKindSchema.options;
const PRIORITIES = NoticePrioritySchema.options.map((o) => o.value);

/**
 * A registry of Loopdeck's gauges, each computed by its own collect() from `state()` when scraped:
 * aggregate numbers and names only, never a finding's or notice's text. A registry of its own (not
 * prom-client's global one), so a demo switch or a second core in a test starts from nothing.
 *
 * Status-like gauges are state sets: every status gets a series, 1 for the current one and 0 for
 * the others, so `loopdeck_phase_status{status="failed"} == 1` is an alert rule and a status that
 * ended reads 0 at once instead of going stale.
 */
export function loopMetricsRegistry(state: () => LiveState): Registry {
  const registry = new Registry();
  const registers = [registry];

  new Gauge({
    name: 'loopdeck_phase_status',
    help: "Status of each phase of the loop's newest cycle: 1 for the phase's status, 0 for the others.",
    labelNames: ['loop', 'phase', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const loop of state().loops) {
        for (const phase of loop.cycles[0]?.phases ?? []) {
          for (const status of PHASE_STATUSES) this.set({ loop: loop.name, phase: phase.name, status }, phase.status === status ? 1 : 0);
        }
      }
    },
  });

  new Gauge({
    name: 'loopdeck_phase_cause',
    help: "Who each failed, incomplete or hung phase of the loop's newest cycle is put down to (fleet, runner, agent, unknown): 1 for its cause, 0 for the others; no series for a phase that went well.",
    labelNames: ['loop', 'phase', 'cause'] as const,
    registers,
    collect() {
      this.reset();
      for (const loop of state().loops) {
        for (const phase of loop.cycles[0]?.phases ?? []) {
          if (!phase.cause) continue;
          for (const cause of CAUSES) this.set({ loop: loop.name, phase: phase.name, cause }, phase.cause.kind === cause ? 1 : 0);
        }
      }
    },
  });

  new Gauge({
    name: 'loopdeck_deadman_state',
    help: 'Dead-man state of each loop (did it fire on schedule): 1 for the current state, 0 for the others.',
    labelNames: ['loop', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const loop of state().loops) {
        if (!loop.deadman) continue;
        for (const s of DEADMAN_STATES) this.set({ loop: loop.name, state: s }, loop.deadman.state === s ? 1 : 0);
      }
    },
  });

  new Gauge({
    name: 'loopdeck_findings_open',
    help: "Open findings in each loop's ledgers, by severity (none: the finding has no severity).",
    labelNames: ['loop', 'severity'] as const,
    registers,
    collect() {
      this.reset();
      const s = state();
      for (const loop of s.loops) {
        for (const [severity, count] of openFindingsBySeverity(s.findingsOf(loop.name))) {
          if (severity !== 'none' || count > 0) this.set({ loop: loop.name, severity }, count);
        }
      }
    },
  });

  new Gauge({
    name: 'loopdeck_contract_breaches',
    help: "Items of the Broken contract list: where each loop broke a rule of its own manual, by kind (0 for every kind it keeps).",
    labelNames: ['loop', 'kind'] as const,
    registers,
    collect() {
      this.reset();
      const s = state();
      const counts = new Map(s.loops.map((l) => [l.name, new Map<string, number>(CONTRACT_KINDS.map((k) => [k, 0]))]));
      for (const b of s.contract) {
        const byKind = counts.get(b.loop);
        byKind?.set(b.kind, (byKind.get(b.kind) ?? 0) + 1);
      }
      for (const [loop, byKind] of counts) for (const [kind, count] of byKind) this.set({ loop, kind }, count);
    },
  });

  new Gauge({
    name: 'loopdeck_prs_ready',
    help: 'Pull requests each loop delivered that are green and ready to merge.',
    labelNames: ['loop'] as const,
    registers,
    collect() {
      this.reset();
      const s = state();
      const ready = new Map(s.loops.map((l) => [l.name, 0]));
      for (const pr of s.prs) if (pr.status === 'ready') ready.set(pr.loop, (ready.get(pr.loop) ?? 0) + 1);
      for (const [loop, count] of ready) this.set({ loop }, count);
    },
  });

  new Gauge({
    name: 'loopdeck_host_up',
    help: 'Whether Loopdeck is connected to each configured host (1) or not (0).',
    labelNames: ['host'] as const,
    registers,
    collect() {
      this.reset();
      for (const h of state().hosts) this.set({ host: h.name }, h.state === 'connected' ? 1 : 0);
    },
  });

  new Gauge({
    name: 'loopdeck_notices_unacknowledged',
    help: 'Notices not yet acknowledged (snoozed ones included), by priority (-2 to 2).',
    labelNames: ['priority'] as const,
    registers,
    collect() {
      const counts = new Map<number, number>(PRIORITIES.map((p) => [p, 0]));
      for (const n of state().notices()) if (n.acknowledgedAt === null) counts.set(n.priority, (counts.get(n.priority) ?? 0) + 1);
      for (const [priority, count] of counts) this.set({ priority: String(priority) }, count);
    },
  });

  new Gauge({
    name: 'loopdeck_source_errors',
    help: "Sources that currently cannot be read: a loop's runs folder or ledgers, the drills.",
    registers,
    collect() {
      this.set(state().sourceErrors);
    },
  });

  return registry;
}
