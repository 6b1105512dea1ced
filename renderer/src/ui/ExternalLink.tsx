import type { ReactNode } from 'react';
import { externalHttpsUrl, openExternal } from './links';

/** Props of an external link. */
export interface ExternalLinkProps {
  /** The URL as written by an agent or a ledger; only https becomes a link. */
  url: string;
  /** What to show; defaults to the URL. */
  children?: ReactNode;
  testId?: string;
}

/**
 * A link opened outside the app (the system browser, in Electron), offered only for https URLs;
 * anything else is shown as plain text.
 */
export function ExternalLink({ url: raw, children, testId }: ExternalLinkProps) {
  const url = externalHttpsUrl(raw);
  if (!url) return <span className="mono" title="Not an https URL, so not offered as a link">{children ?? raw}</span>;
  return (
    <a
      className="ext-link"
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      title={`Open ${url} in your browser`}
      data-testid={testId}
      onClick={(e) => {
        e.preventDefault();
        openExternal(url);
      }}
    >
      {children ?? url}
      <span aria-hidden="true" className="ext">
        ↗
      </span>
    </a>
  );
}
