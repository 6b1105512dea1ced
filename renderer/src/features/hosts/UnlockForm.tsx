import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../../client';
import { useDeck } from '../../store';

/**
 * Asks for an identity file's passphrase. The input is uncontrolled and cleared on submit, so the
 * passphrase lives only in the field until it is sent: never in state, the store or storage.
 */
export function UnlockForm({ host, file }: { host: string; file: string }) {
  const unlockHost = useDeck((s) => s.unlockHost);
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const value = new FormData(form).get('passphrase');
    form.reset();
    if (typeof value !== 'string' || value === '') return;
    setBusy(true);
    setError(null);
    try {
      const unlocked = await unlockHost(host, value);
      if (!unlocked) setError(`That passphrase did not unlock ${file}.`);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="unlock" data-testid={`unlock-${host}`} autoComplete="off" onSubmit={(e) => void onSubmit(e)}>
      <label htmlFor={id} className="unlock-label">
        Passphrase for <code className="path">{file}</code>
      </label>
      <div className="unlock-row">
        <input
          id={id}
          name="passphrase"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          disabled={busy}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Unlocking…' : 'Unlock'}
        </button>
      </div>
      {error ? (
        <p className="host-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
