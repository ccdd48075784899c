/**
 * A self-signed certificate for `localhost` and 127.0.0.1 (P-256, valid until 2126) and its
 * key, made for tests only: a client that does not trust it must fail its TLS handshake.
 *
 * @module
 */

/** The private key, PEM. Test-only: it protects nothing. */
export const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnbhXkjoO+VtHwwvP
rdMdkRL0P5FvRroyR302ClzxZJmhRANCAASwU5ZqDWAs0aLceXAuHEyHt0m9DXls
3NQeTAftySSkQz6bjl5w12rGNedMuuZeOBxRZ3j690Y3mXewL88e/JYm
-----END PRIVATE KEY-----
`;

/** The self-signed certificate, PEM. */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBlzCCAT6gAwIBAgIUAZoEBwhXiew1mbIMed6QL+Rdj8cwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMTA4NDU0NFoYDzIxMjYxMTA3
MDg0NTQ0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASwU5ZqDWAs0aLceXAuHEyHt0m9DXls3NQeTAftySSkQz6bjl5w12rG
NedMuuZeOBxRZ3j690Y3mXewL88e/JYmo2wwajAdBgNVHQ4EFgQUolMSONw7R2Y0
OjEGo7bQ33LmGo4wHwYDVR0jBBgwFoAUolMSONw7R2Y0OjEGo7bQ33LmGo4wGgYD
VR0RBBMwEYIJbG9jYWxob3N0hwR/AAABMAwGA1UdEwEB/wQCMAAwCgYIKoZIzj0E
AwIDRwAwRAIgNCffQqA9cRzFptdwC2k18XeZYhQwnIFDO9VU2fR0j4ICIAD2g8as
y3JSMfbT4CLGAx6wOWeIQEjKl4scmtX26fX6
-----END CERTIFICATE-----
`;
