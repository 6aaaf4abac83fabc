// What a failed connection means for the operator: certificate and proxy failures named, with the fix.
import { CertificateError } from "./errors.js";

const TRUST =
  "Give the CA's certificate (PEM) as server.tls.ca in bot.config.yaml (zuliprc: cert_bundle=), or set NODE_EXTRA_CA_CERTS to its file";

/** OpenSSL's and Node's codes for a server certificate the client would not accept, and what each means. */
const SERVER_CERTIFICATE: Record<string, [problem: string, fix: string]> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: [
    "the server's certificate is signed by a certificate authority this machine does not trust (a private CA?)",
    TRUST,
  ],
  UNABLE_TO_GET_ISSUER_CERT: [
    "the server's certificate is signed by a certificate authority this machine does not trust (a private CA?)",
    TRUST,
  ],
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: [
    "the server's certificate is signed by a certificate authority this machine does not trust (a private CA?)",
    TRUST,
  ],
  SELF_SIGNED_CERT_IN_CHAIN: [
    "the server's certificate chain ends in a self-signed certificate authority this machine does not trust",
    TRUST,
  ],
  DEPTH_ZERO_SELF_SIGNED_CERT: [
    "the server's certificate is self-signed",
    "Give that certificate (PEM) as server.tls.ca (zuliprc: cert_bundle=); server.tls.insecure: true (zuliprc: insecure=true) skips verification, for tests only",
  ],
  CERT_HAS_EXPIRED: [
    "the server's certificate has expired",
    "Renew it on the server (or check this machine's clock)",
  ],
  CERT_NOT_YET_VALID: ["the server's certificate is not valid yet", "Check this machine's clock"],
  ERR_TLS_CERT_ALTNAME_INVALID: [
    "the server's certificate does not name the host of server.site",
    "Use the host name the certificate was issued for in server.site",
  ],
  CERT_REVOKED: ["the server's certificate has been revoked", "Renew it on the server"],
};

/** TLS alerts the server sends about the client's certificate. */
const CLIENT_CERTIFICATE =
  /ALERT_(CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|ACCESS_DENIED)/;

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** The CertificateError a failed request's error stands for, if it is one. */
export function certificateError(error: unknown, endpoint: string): CertificateError | undefined {
  for (const code of codesOf(error)) {
    const known = SERVER_CERTIFICATE[code];
    if (known) return new CertificateError(known[0], known[1], { endpoint, cause: error });
    if (CLIENT_CERTIFICATE.test(code))
      return new CertificateError(
        `the server refused the TLS handshake (${code}): it wants a client certificate it trusts`,
        "Give it as server.tls.cert and server.tls.key (zuliprc: client_cert= and client_cert_key=)",
        { endpoint, cause: error },
      );
    if (code === "ERR_OSSL_X509_KEY_VALUES_MISMATCH")
      return new CertificateError(
        "server.tls.key is not the private key of server.tls.cert",
        "Give the key that belongs to the client certificate",
        { endpoint, cause: error },
      );
    if (code === "ERR_SSL_WRONG_VERSION_NUMBER")
      return new CertificateError(
        "server.site says https but the server answered in plain HTTP",
        "Use http:// in server.site, or the server's TLS port",
        { endpoint, cause: error },
      );
  }
  return undefined;
}

/**
 * The CertificateError for an HTTP answer that is not JSON but a web server's page about the
 * client certificate (nginx answers 400 "No required SSL certificate was sent" when
 * `ssl_verify_client on` gets none, "The SSL certificate error" for one it does not trust).
 */
export function clientCertificatePage(
  status: number,
  text: string,
  endpoint: string,
): CertificateError | undefined {
  if (status !== 400 && status !== 495 && status !== 496) return undefined;
  if (/No required SSL certificate was sent/i.test(text) || status === 496)
    return new CertificateError(
      `the server requires a client certificate and none was sent (HTTP ${status})`,
      "Give it as server.tls.cert and server.tls.key (zuliprc: client_cert= and client_cert_key=)",
      { endpoint, status },
    );
  if (/SSL certificate error/i.test(text) || status === 495)
    return new CertificateError(
      `the server refused the client certificate (HTTP ${status}): not signed by a CA it trusts, or expired`,
      "Check server.tls.cert (zuliprc: client_cert=) against the CA the server trusts",
      { endpoint, status },
    );
  return undefined;
}

/**
 * What a proxy's refusal to open a tunnel means (undici: "Proxy response (407) !== 200 when HTTP
 * Tunneling"), with the fix; undefined for other errors.
 */
export function proxyRefusal(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : "";
  const status = /Proxy response \((\d{3})\)/.exec(message)?.[1];
  if (!status) return undefined;
  if (status === "407")
    return "the proxy wants credentials (HTTP 407): give them in its URL, http://user:password@proxy:port, in HTTPS_PROXY/HTTP_PROXY or server.proxy";
  if (status === "403")
    return "the proxy refused to open a tunnel to the server (HTTP 403): it must allow CONNECT to the server's port (tinyproxy: ConnectPort; squid: SSL_ports), or list the server in NO_PROXY";
  return `the proxy refused to open a tunnel to the server (HTTP ${status})`;
}
