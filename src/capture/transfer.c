/* SPDX-License-Identifier: MIT */
/* One libcurl transfer run through the multi interface (transfer.h), so that the wait for data
 * wakes up every tenth of a second to look at the cancel flag and tick the caller's clock. */
#include "capture/transfer.h"

#include <pthread.h>

#include "profkit/version.h"

#define TRANSFER_TICK_MS 100
#define TRANSFER_CONNECT_TIMEOUT_MS 10000L

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_global_status = CURLE_FAILED_INIT;

/* libcurl's global set-up is not safe to race: done once, whoever captures first. */
static void curl_global_setup(void)
{
    curl_global_status = curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURL *pk_transfer_easy(long connect_timeout_ms, char *errbuf)
{
    pthread_once(&curl_once, curl_global_setup);
    if (curl_global_status != CURLE_OK)
        return NULL;
    CURL *easy = curl_easy_init();
    if (!easy)
        return NULL;
    errbuf[0] = '\0';
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     connect_timeout_ms > 0 ? connect_timeout_ms : TRANSFER_CONNECT_TIMEOUT_MS);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "profkit/" PROFKIT_VERSION);
    /* A device on the local network: a proxy from the environment would not reach it. */
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    return easy;
}

pk_status pk_transfer_run(CURL *easy, const pk_transfer_watch *watch, CURLcode *result,
                          bool *cancelled)
{
    *cancelled = false;
    *result = CURLE_FAILED_INIT;
    CURLM *multi = curl_multi_init();
    if (!multi)
        return PK_ERR_NOMEM;
    if (curl_multi_add_handle(multi, easy) != CURLM_OK) {
        curl_multi_cleanup(multi);
        return PK_ERR_NOMEM;
    }
    pk_status status = PK_OK;
    for (;;) {
        int running = 0;
        CURLMcode mc = curl_multi_perform(multi, &running);
        if (mc != CURLM_OK) {
            if (mc == CURLM_OUT_OF_MEMORY)
                status = PK_ERR_NOMEM;
            break; /* *result stays CURLE_FAILED_INIT */
        }
        int queued;
        CURLMsg *msg;
        bool done = false;
        while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
                *result = msg->data.result;
                done = true;
            }
        }
        if (done || running == 0)
            break;
        if (watch->cancel && *watch->cancel) {
            *cancelled = true;
            break;
        }
        if (watch->tick)
            watch->tick(watch->context);
        /* A signal cuts the wait short; the flag is looked at right after. */
        if (curl_multi_poll(multi, NULL, 0, TRANSFER_TICK_MS, NULL) != CURLM_OK)
            break; /* *result stays CURLE_FAILED_INIT */
    }
    curl_multi_remove_handle(multi, easy);
    curl_multi_cleanup(multi);
    return status;
}

const char *pk_transfer_message(CURLcode code, const char *errbuf)
{
    return errbuf && errbuf[0] ? errbuf : curl_easy_strerror(code);
}
