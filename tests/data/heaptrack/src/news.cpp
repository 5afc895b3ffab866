// operator new and new[] (heaptrack_print leaves them out of stacks), a leak in a class.
#include <string>
#include <vector>
struct Node { Node *next; char payload[48]; };
static Node *build(int n) { Node *head = nullptr; for (int i = 0; i < n; i++) { Node *x = new Node; x->next = head; head = x; } return head; }
static void release(Node *h) { while (h) { Node *n = h->next; delete h; h = n; } }
int main() {
  Node *kept = build(20);
  release(build(200));
  std::vector<std::string> words;
  for (int i = 0; i < 100; i++) words.push_back(std::string(40 + i % 7, 'x'));
  int *arr = new int[1000]; delete[] arr;
  (void)kept;
  return 0;
}
