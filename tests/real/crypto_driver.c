/* Drives Debian's libcrypto.a (OpenSSL, with its perlasm assembly):
 * digests, a cipher and a MAC over a generated buffer. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>

static void hex(const char *what, const unsigned char *p, unsigned n)
{
	printf("%-8s ", what);
	for (unsigned i = 0; i < n; i++)
		printf("%02x", p[i]);
	putchar('\n');
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	size_t n = 1 << 18;
	unsigned char *buf = malloc(n), md[EVP_MAX_MD_SIZE];
	unsigned x = 3, len = 0;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	const char *digests[] = {"SHA256", "SHA512", "SHA1", "MD5"};
	for (int r = 0; r < reps; r++)
		for (int d = 0; d < 4; d++) {
			EVP_Digest(buf, n, md, &len, EVP_get_digestbyname(digests[d]), NULL);
			if (r == 0)
				hex(digests[d], md, len);
		}
	unsigned char key[16] = "0123456789abcdef", iv[16] = {0};
	unsigned char *out = malloc(n + 32);
	int ol = 0, fl = 0;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv);
	EVP_EncryptUpdate(ctx, out, &ol, buf, (int)n);
	EVP_EncryptFinal_ex(ctx, out + ol, &fl);
	EVP_CIPHER_CTX_free(ctx);
	EVP_Digest(out, (size_t)(ol + fl), md, &len, EVP_sha256(), NULL);
	hex("aes-cbc", md, len);
	HMAC(EVP_sha256(), key, 16, buf, n, md, &len);
	hex("hmac", md, len);
	free(buf);
	free(out);
	return 0;
}
