import type { NoticePriority } from '../../../../shared/domain';
import { noticeLink, PRIORITY_LABEL } from './notices';
import { ExternalLink } from '../../ui/ExternalLink';

/** A notice's priority as a badge; an unacknowledged emergency pulses. */
export function PriorityBadge({ priority, pulsing = false }: { priority: NoticePriority; pulsing?: boolean }) {
  return (
    <span className={`prio prio-${priority}${pulsing ? ' pulsing' : ''}`} title={`Priority ${priority}`}>
      {PRIORITY_LABEL[priority]}
    </span>
  );
}

/** A notice's link: console links (`#/…`) navigate in the app, https opens outside, anything else is text. */
export function NoticeLinkView({ url, title, testId }: { url: string | null; title: string | null; testId?: string }) {
  const link = noticeLink(url);
  if (!url) return null;
  if (!link) return <span className="mono muted small">{title ?? url}</span>;
  if (link.kind === 'external') {
    return (
      <ExternalLink url={link.url} {...(testId ? { testId } : {})}>
        {title ?? link.url}
      </ExternalLink>
    );
  }
  return (
    <a className="console-link" href={link.hash} data-testid={testId}>
      {title ?? link.hash} →
    </a>
  );
}
