// Client: the verbs of the Kubernetes REST API on raw JSON (client-go's dynamic client).
//
// An abstract interface: production code uses RestClient (rest_client.h, libcurl), unit tests
// FakeClient (fake_client.h, an in-memory object tracker). Bodies go in and come out as JSON
// text; typed code decodes with api::Decode<T> and encodes with api::EncodeJson.
//
// Errors are kai::Status with the API server's metav1.Status details (errors.h): branch on
// IsNotFound / IsConflict / IsAlreadyExists / IsResourceExpired ... or on reason().
//
// Namespaces: an empty `ns` addresses cluster-scoped objects, or all namespaces for List and
// Watch. Every method is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/statusor.h"
#include "kube/rest/options.h"
#include "kube/rest/resource.h"
#include "kube/rest/watch.h"

namespace kai::kube {

// One page of a LIST answer.
struct ObjectList {
  std::string api_version;       // of the list, e.g. "v1"
  std::string kind;              // "PodList"
  std::string resource_version;  // of the collection: watch from here
  std::string continue_token;    // non-empty when more pages follow
  std::optional<int64_t> remaining_item_count;
  // Items' JSON. Items of built-in kinds come without kind/apiVersion on the wire; the client
  // fills them in (from the list's kind minus "List").
  std::vector<std::string> items;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual StatusOr<std::string> Get(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name, const GetOptions& options = {}) = 0;

  // One page (or the whole collection when options.limit is 0).
  virtual StatusOr<ObjectList> List(const GroupVersionResource& gvr, std::string_view ns,
                                    const ListOptions& options = {}) = 0;

  // POST to the collection (or to `options.subresource` of the object named in the body: not
  // used; see CreateSubresource).
  virtual StatusOr<std::string> Create(const GroupVersionResource& gvr, std::string_view ns,
                                       std::string_view body, const WriteOptions& options = {}) = 0;

  // PUT. With metadata.resourceVersion in the body the update is optimistic (409 Conflict when
  // stale). options.subresource = "status" updates only the status.
  virtual StatusOr<std::string> Update(const GroupVersionResource& gvr, std::string_view ns,
                                       std::string_view name, std::string_view body,
                                       const WriteOptions& options = {}) = 0;

  virtual StatusOr<std::string> Patch(const GroupVersionResource& gvr, std::string_view ns,
                                      std::string_view name, PatchType type, std::string_view patch,
                                      const PatchOptions& options = {}) = 0;

  // DELETE. Returns the answer body: the object (removed or pending finalizers/grace) or a
  // metav1.Status of success.
  virtual StatusOr<std::string> Delete(const GroupVersionResource& gvr, std::string_view ns,
                                       std::string_view name,
                                       const DeleteOptions& options = {}) = 0;

  // POST to a subresource of an object: pods/binding (a v1.Binding), pods/eviction (a
  // policy/v1.Eviction), serviceaccounts/token ...
  virtual StatusOr<std::string> CreateSubresource(const GroupVersionResource& gvr,
                                                  std::string_view ns, std::string_view name,
                                                  std::string_view subresource,
                                                  std::string_view body,
                                                  const WriteOptions& options = {}) = 0;

  // Opens a watch. Errors that happen before the stream starts (410 Expired for a too-old RV,
  // 429, transport failures) are returned here; later ones come as ERROR events or Result().
  virtual StatusOr<std::unique_ptr<Watcher>> Watch(const GroupVersionResource& gvr,
                                                   std::string_view ns,
                                                   const WatchOptions& options = {}) = 0;

  // --- Conveniences on top of the verbs ---------------------------------------------------

  // PUT .../status.
  StatusOr<std::string> UpdateStatus(const GroupVersionResource& gvr, std::string_view ns,
                                     std::string_view name, std::string_view body,
                                     WriteOptions options = {});
  // POST pods/{pod}/binding with a v1.Binding targeting `node`. A non-empty `pod_uid` is a
  // precondition (409 if the name now holds another pod); `annotations` are merged into the
  // pod's by the same write.
  Status Bind(std::string_view ns, std::string_view pod, std::string_view node,
              std::string_view pod_uid = {},
              const std::map<std::string, std::string>& annotations = {});
  // POST pods/{pod}/eviction with a policy/v1 Eviction (429 when a PDB forbids it).
  Status Evict(std::string_view ns, std::string_view pod, const DeleteOptions& options = {});
};

// Lists a whole collection in pages of `page_size` (client-go pager: 500), concatenating the
// items; the result's resource_version is the first page's (the consistent snapshot the
// continue tokens walk). When a continue token expires (410) it falls back to one full list,
// as the pager does. page_size 0 lists in one request.
StatusOr<ObjectList> ListAll(Client& client, const GroupVersionResource& gvr, std::string_view ns,
                             ListOptions options = {}, int64_t page_size = 500);

// An RFC 6902 patch (`ops`, a JSON array) of the object with this uid only: a `test` of
// /metadata/uid goes first, so a namesake created since is left alone. (A uid in a merge patch's
// body guards nothing on a custom resource's status subresource, where the server keeps the
// stored metadata; a patch's test runs against the stored object.) A failed test is a 422 like
// any refused patch: a read tells them apart, and another uid comes back as 409 Conflict, a gone
// object as 404. An empty uid adds no test.
StatusOr<std::string> PatchJsonWithUid(Client& client, const GroupVersionResource& gvr,
                                       std::string_view ns, std::string_view name,
                                       std::string_view uid, std::string_view ops,
                                       const PatchOptions& options = {});

}  // namespace kai::kube
