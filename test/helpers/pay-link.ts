import type { KudosEmulator } from 'kudos-emulator';

/**
 * Pays a widget link as the payer `from` would, through the widget's own checks, after letting
 * `edit` change its parameters (as a payer can in the address bar).
 */
export function payLink(
  kudos: KudosEmulator,
  url: string,
  from: string,
  edit?: (params: URLSearchParams) => void,
) {
  const params = new URL(url).searchParams;
  edit?.(params);
  const get = (name: string) => params.get(name) ?? undefined;
  return kudos.pay({
    from,
    to: params.get('to') ?? '',
    amount: params.get('amount') ?? '',
    via: get('via'),
    fee: get('fee'),
    remarks: get('remarks'),
    state: get('state'),
  });
}
