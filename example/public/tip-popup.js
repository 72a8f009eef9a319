// "Tip in a popup": the Kudos widget opened in a popup (opener=1). When the payment is made, the
// widget posts ONE message to this page, a JSON string {"action":"TX_SUBMITTED","data":{"tx_hash",
// "state",...}}, to the origin of its redirect_uri, and closes. This page checks the message's origin
// against the Kudos origin, parses the string, and hands the hash to the server, which reconciles it
// for this user's order (the browser's word proves nothing: the server looks the transaction up).
const button = document.getElementById('tip-popup');
const result = document.getElementById('tip-popup-result');
if (button && result) {
  const kudosOrigin = button.dataset.kudosOrigin;
  button.addEventListener('click', (event) => {
    event.preventDefault();
    window.open(button.href, 'kudos-pay', 'popup,width=480,height=720');
  });
  window.addEventListener('message', (event) => {
    if (event.origin !== kudosOrigin || typeof event.data !== 'string') return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message?.action !== 'TX_SUBMITTED' || typeof message.data?.tx_hash !== 'string') return;
    result.textContent = 'Checking the payment…';
    fetch('/tip/popup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        tx_hash: message.data.tx_hash,
        state: typeof message.data.state === 'string' ? message.data.state : '',
        csrf: button.dataset.csrf ?? '',
      }),
    })
      .then((res) => res.json())
      .then((answer) => {
        result.textContent = answer.message;
        result.dataset.status = answer.status;
      })
      .catch(() => {
        result.textContent = 'Could not check the payment; it appears under Payments once Kudos notifies us.';
      });
  });
}
