// kai-operator: thin main; the operator's library lands with its issue.
#include "controllers/common/component_info.h"

int main(int argc, char** argv) {
  return kai::controllers::RunPlaceholderMain("kai-operator", argc, argv);
}
